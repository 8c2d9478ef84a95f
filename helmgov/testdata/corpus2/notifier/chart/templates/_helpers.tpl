{{/* notifier.selector: what the Service selects. */}}
{{- define "notifier.selector" -}}
app.kubernetes.io/name: notifier
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
