{{/* search-api.selector: what the Service selects. */}}
{{- define "search-api.selector" -}}
app: search-api
instance: {{ .Release.Name }}
{{- end }}
