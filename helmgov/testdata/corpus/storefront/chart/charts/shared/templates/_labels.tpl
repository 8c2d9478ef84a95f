{{/*
shared.labels: the labels of every object, plus .Values.commonLabels.
  labels: {{- include "shared.labels" . | nindent 4 }}
*/}}
{{- define "shared.labels" -}}
app.kubernetes.io/name: {{ include "shared.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.commonLabels }}
{{ include "shared.render" (dict "value" . "context" $) }}
{{- end }}
{{- end -}}

{{/*
shared.matchLabels: the labels that select the release's pods. They must
not change across upgrades (a Deployment's selector is immutable).
*/}}
{{- define "shared.matchLabels" -}}
app.kubernetes.io/name: {{ include "shared.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
