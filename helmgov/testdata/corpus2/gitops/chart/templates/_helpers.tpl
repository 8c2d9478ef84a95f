{{/* gitops.fullname: the release's prefix. */}}
{{- define "gitops.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* gitops.server.fullname: the server's objects' name. */}}
{{- define "gitops.server.fullname" -}}
{{- printf "%s-%s" (include "gitops.fullname" .) .Values.server.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
gitops.selectorLabels: a component's selector.
  {{ include "gitops.selectorLabels" (dict "context" . "component" "server") }}
*/}}
{{- define "gitops.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gitops.fullname" .context }}-{{ .component }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
{{- end -}}

{{/* gitops.labels: a component's labels, its selector's included. */}}
{{- define "gitops.labels" -}}
helm.sh/chart: {{ .context.Chart.Name }}-{{ .context.Chart.Version }}
{{ include "gitops.selectorLabels" . }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/managed-by: {{ .context.Release.Service }}
{{- end -}}
