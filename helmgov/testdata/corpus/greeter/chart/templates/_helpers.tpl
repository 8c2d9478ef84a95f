{{/*
The chart name, unless nameOverride says otherwise.
*/}}
{{- define "greeter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
"<release>-<chart>", or fullnameOverride. Names are cut to 63 characters:
Service names become DNS labels.
*/}}
{{- define "greeter.fullname" -}}
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

{{- define "greeter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels of every object greeter renders.
*/}}
{{- define "greeter.labels" -}}
helm.sh/chart: {{ include "greeter.chart" . }}
{{ include "greeter.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
Labels the Deployment and the Service select pods by.
*/}}
{{- define "greeter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "greeter.fullname" . }}
{{- end -}}
