{{/* payments.labels: every object's labels, the selector's included. */}}
{{- define "payments.labels" -}}
app: payments
release: {{ .Release.Name }}
version: {{ .Chart.AppVersion | quote }}
{{- end }}

{{/* payments.selector: what the Service selects. */}}
{{- define "payments.selector" -}}
app: payments
release: {{ .Release.Name }}
{{- end }}
