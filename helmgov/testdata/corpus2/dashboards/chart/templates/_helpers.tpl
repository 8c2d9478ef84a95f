{{/* dashboards.fullname: release and chart name, at most 63 characters. */}}
{{- define "dashboards.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* dashboards.selectorLabels: the labels the Service and the Deployment select on. */}}
{{- define "dashboards.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* dashboards.labels: every object's labels; the selector's included. */}}
{{- define "dashboards.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{ include "dashboards.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
