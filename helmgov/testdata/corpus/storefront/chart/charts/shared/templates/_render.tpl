{{/*
shared.render: renders a value of the values that may itself hold template
expressions ("{{ .Release.Name }}-x"). A map or a list is rendered as YAML.
  {{ include "shared.render" (dict "value" .Values.path.to.value "context" $) }}
*/}}
{{- define "shared.render" -}}
{{- $text := .value -}}
{{- if not (typeIs "string" $text) -}}
{{- $text = toYaml .value -}}
{{- end -}}
{{- if contains "{{" $text -}}
{{- tpl $text .context -}}
{{- else -}}
{{- $text -}}
{{- end -}}
{{- end -}}
