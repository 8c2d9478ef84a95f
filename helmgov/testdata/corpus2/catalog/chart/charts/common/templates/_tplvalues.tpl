{{/*
common.tplvalues.render: a value of the values that may hold template
expressions ("{{ .Release.Name }}-x"), rendered against the context. A map
or a list is rendered as YAML.
  {{ include "common.tplvalues.render" (dict "value" .Values.path "context" $) }}
*/}}
{{- define "common.tplvalues.render" -}}
{{- $text := .value -}}
{{- if not (kindIs "string" $text) -}}
{{- $text = toYaml .value -}}
{{- end -}}
{{- if contains "{{" $text -}}
{{- tpl $text .context -}}
{{- else -}}
{{- $text -}}
{{- end -}}
{{- end -}}

{{/*
common.tplvalues.merge: several maps of values, each rendered, merged into
one; on a key they share, the first map wins.
  {{ include "common.tplvalues.merge" (dict "values" (list .Values.a .Values.b) "context" $) }}
*/}}
{{- define "common.tplvalues.merge" -}}
{{- $out := dict -}}
{{- range .values -}}
{{- if . -}}
{{- $out = merge $out (include "common.tplvalues.render" (dict "value" . "context" $.context) | fromYaml) -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}
