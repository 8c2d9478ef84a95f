{{/* metrics-agent.fullname: the release's name and the chart's (its alias, under an alias). */}}
{{- define "metrics-agent.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* metrics-agent.selectorLabels: what the Service selects. */}}
{{- define "metrics-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
