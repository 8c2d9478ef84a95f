{{/*
common.images.image: registry/repository:tag, the global registry first.
  {{ include "common.images.image" (dict "imageRoot" .Values.image "global" .Values.global) }}
*/}}
{{- define "common.images.image" -}}
{{- $registry := .imageRoot.registry -}}
{{- if and .global .global.imageRegistry -}}
{{- $registry = .global.imageRegistry -}}
{{- end -}}
{{- printf "%s/%s:%s" $registry .imageRoot.repository (toString .imageRoot.tag) -}}
{{- end -}}
