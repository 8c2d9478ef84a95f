{{/* alert-router.fullname: release and chart name. */}}
{{- define "alert-router.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* alert-router.selectorLabels: what the Service selects. */}}
{{- define "alert-router.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
