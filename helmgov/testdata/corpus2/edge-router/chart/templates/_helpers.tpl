{{/* edge-router.name: the chart's name. */}}
{{- define "edge-router.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* edge-router.controller.fullname: the controller's objects' name. */}}
{{- define "edge-router.controller.fullname" -}}
{{- printf "%s-%s-%s" .Release.Name .Chart.Name .Values.controller.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* edge-router.selectorLabels: what the controller's Service selects. */}}
{{- define "edge-router.selectorLabels" -}}
app: {{ template "edge-router.name" . }}
release: {{ .Release.Name }}
component: "{{ .Values.controller.name }}"
{{- end -}}
