{{/* billing.selector: what the Services select. */}}
{{- define "billing.selector" -}}
app.kubernetes.io/name: billing
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
