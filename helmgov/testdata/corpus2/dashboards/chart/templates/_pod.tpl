{{/*
dashboards.pod: the pod template, shared by the Deployment and (in other
releases of this chart) a StatefulSet.
*/}}
{{- define "dashboards.pod" -}}
metadata:
  labels:
    {{- include "dashboards.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .Values.terminationGracePeriodSeconds }}
  terminationGracePeriodSeconds: {{ . }}
  {{- end }}
  containers:
    - name: {{ .Chart.Name }}
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      ports:
        - name: {{ .Values.podPortName }}
          containerPort: 3000
          protocol: TCP
      readinessProbe:
        httpGet:
          path: /api/health
          port: {{ .Values.podPortName }}
      {{- with .Values.lifecycleHooks }}
      lifecycle:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
