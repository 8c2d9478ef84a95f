{{/*
The chart's short name: the chart name, or nameOverride.
*/}}
{{- define "edge-proxy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The release's base name. Kubernetes names are DNS labels: at most 63
characters. A release whose name already holds the chart name keeps it as is.
*/}}
{{- define "edge-proxy.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Name of the controller's objects.
*/}}
{{- define "edge-proxy.controller.fullname" -}}
{{- printf "%s-%s" (include "edge-proxy.fullname" .) .Values.controller.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "edge-proxy.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels of every object.
*/}}
{{- define "edge-proxy.labels" -}}
helm.sh/chart: {{ include "edge-proxy.chart" . }}
{{ include "edge-proxy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Labels that select the release's pods; they never change across upgrades.
*/}}
{{- define "edge-proxy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "edge-proxy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
The image reference, from an image block of the values.
*/}}
{{- define "edge-proxy.image" -}}
{{- printf "%s/%s:%s" .registry .repository .tag -}}
{{- end -}}
