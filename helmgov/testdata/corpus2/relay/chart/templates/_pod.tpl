{{/* relay.podTemplate: the DaemonSet's pod; its container is written here, not in values. */}}
{{- define "relay.podTemplate" -}}
metadata:
  labels:
    {{- include "relay.selectorLabels" . | nindent 4 }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "relay.fullname" . }}
  containers:
    - name: relay
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      args:
        - --config=/etc/relay/relay.yaml
      ports:
        - name: otlp
          containerPort: 4317
          protocol: TCP
{{- end }}
