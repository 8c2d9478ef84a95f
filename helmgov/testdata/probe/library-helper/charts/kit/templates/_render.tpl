{{/*
kit.render renders .value, a map or a string that may hold template
expressions, as YAML in .context: (dict "value" .Values.x "context" $).
*/}}
{{- define "kit.render" -}}
{{- $text := .value -}}
{{- if not (kindIs "string" $text) -}}
{{- $text = toYaml .value -}}
{{- end -}}
{{- tpl $text .context -}}
{{- end -}}

{{/* kit.name is the chart's name, the name of its main container. */}}
{{- define "kit.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
