{{/* alertmanager.fullname: the release's name, and the chart's unless it holds it. */}}
{{- define "alertmanager.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* alertmanager.selectorLabels: what the Services select. */}}
{{- define "alertmanager.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* alertmanager.labels: every object's labels; the global ones included. */}}
{{- define "alertmanager.labels" -}}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{ include "alertmanager.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- with .Values.global.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* alertmanager.image: the global registry first. */}}
{{- define "alertmanager.image" -}}
{{- $registry := .Values.global.imageRegistry | default .Values.image.registry -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end }}
