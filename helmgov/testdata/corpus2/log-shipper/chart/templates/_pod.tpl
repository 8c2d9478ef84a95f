{{/* log-shipper.podTemplate: the DaemonSet's pod. */}}
{{- define "log-shipper.podTemplate" -}}
metadata:
  labels:
    {{- include "log-shipper.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- if .Values.terminationGracePeriodSeconds }}
  terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
  {{- end }}
  containers:
    - name: shipper
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      args:
        - -config.file=/etc/shipper/shipper.yaml
      ports:
        - name: http-metrics
          containerPort: {{ .Values.serviceMetrics.port }}
          protocol: TCP
        {{- range $key, $values := .Values.extraPorts }}
        - name: {{ .name | default $key }}
          containerPort: {{ $values.containerPort }}
          protocol: {{ $values.protocol | default "TCP" }}
        {{- end }}
      {{- with .Values.lifecycle }}
      lifecycle:
        {{- toYaml . | trim | nindent 8 }}
      {{- end }}
{{- end }}
