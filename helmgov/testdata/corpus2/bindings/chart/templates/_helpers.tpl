{{/* bindings.fullname: the objects' name. */}}
{{- define "bindings.fullname" -}}
{{- printf "%s-checkout" .Release.Name -}}
{{- end }}

{{/* bindings.selector: what the Service selects. */}}
{{- define "bindings.selector" -}}
app: checkout
instance: {{ .Release.Name }}
{{- end }}
