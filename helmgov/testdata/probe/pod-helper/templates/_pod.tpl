{{- define "ledger.pod" -}}
terminationGracePeriodSeconds: {{ .Values.pod.gracePeriod }}
containers:
  - name: ledger
    image: registry.example.com/ledger:1.4
    ports:
      - containerPort: 8080
    {{- with .Values.pod.hooks }}
    lifecycle:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end -}}
