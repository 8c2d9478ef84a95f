{{/*
shared.image: "<registry>/<repository>:<tag>"; .Values.global.imageRegistry,
when set, wins over the image's registry.
  {{ include "shared.image" (dict "image" .Values.image "global" .Values.global) }}
*/}}
{{- define "shared.image" -}}
{{- $registry := .image.registry -}}
{{- if and .global .global.imageRegistry -}}
{{- $registry = .global.imageRegistry -}}
{{- end -}}
{{- printf "%s/%s:%s" $registry .image.repository (toString .image.tag) -}}
{{- end -}}
