{{/*
shared.name: the chart's name, or .Values.nameOverride.
  {{ include "shared.name" . }}
*/}}
{{- define "shared.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
shared.fullname: "<release>-<name>", or .Values.fullnameOverride; the release
name alone when it already holds the name. At most 63 characters.
  {{ include "shared.fullname" . }}
*/}}
{{- define "shared.fullname" -}}
{{- $name := include "shared.name" . -}}
{{- $full := printf "%s-%s" .Release.Name $name -}}
{{- if .Values.fullnameOverride -}}
{{- $full = .Values.fullnameOverride -}}
{{- else if contains $name .Release.Name -}}
{{- $full = .Release.Name -}}
{{- end -}}
{{- $full | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
shared.namespace: the release namespace, or .Values.namespaceOverride.
*/}}
{{- define "shared.namespace" -}}
{{- .Values.namespaceOverride | default .Release.Namespace | trunc 63 | trimSuffix "-" -}}
{{- end -}}
