{{- define "api.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "api.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "api.labels" -}}
{{ include "api.selectorLabels" . }}
app.kubernetes.io/part-of: platform
environment: {{ .Values.global.environment | default "dev" }}
{{- with .Values.global.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The api container; the Deployment includes it.
*/}}
{{- define "api.container" -}}
- name: api
  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
  envFrom:
    - configMapRef:
        name: {{ .Release.Name }}-settings
  ports:
    - name: http
      containerPort: {{ .Values.containerPort }}
  {{- with .Values.lifecycle }}
  lifecycle:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  readinessProbe:
    httpGet:
      path: /ready
      port: http
{{- end -}}
