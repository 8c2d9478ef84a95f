package main

// failon.go: --fail-on's one severity scale, which diagnose, helm check and
// helm fix all read: parseFailOn (a word to the scale) and helmThreshold
// (the scale to helmgov's coarser grades).

import (
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/helmgov"
)

// failOnHelp is the help of every --fail-on flag after its first words.
const failOnHelp = "critical, high, medium, low, info or none; helm's grades are accepted too, error for high and warning for low (a helm error covers critical and high, a warning medium and low)"

// failOnAliases are helmgov's grades as words of the scale: the bottom of
// the band each grade covers, so that "at or above warning" keeps every
// warning on either side.
var failOnAliases = map[string]diagnose.Severity{
	"error":   diagnose.SeverityHigh,
	"warning": diagnose.SeverityLow,
}

// parseFailOn reads a --fail-on word: a severity of the scale (diagnose's:
// critical, high, medium, low, info), one of helm's grades through
// failOnAliases, or none (returned as ""). Its result is always a word of
// the scale.
func parseFailOn(s string) (string, error) {
	switch sev := diagnose.Severity(s); sev {
	case "none", "":
		return "", nil
	case diagnose.SeverityCritical, diagnose.SeverityHigh, diagnose.SeverityMedium, diagnose.SeverityLow, diagnose.SeverityInfo:
		return s, nil
	}
	if sev, ok := failOnAliases[s]; ok {
		return string(sev), nil
	}
	return "", usagef("--fail-on %q: want %s", s, failOnHelp)
}

// helmThreshold is the helmgov grade a --fail-on word stands for: a helm
// finding is at or above the word when its grade's band (error: critical
// and high; warning: medium and low; info: info) reaches it. ok is false
// for none: no finding fails the run.
func helmThreshold(s string) (threshold helmgov.Severity, ok bool, err error) {
	sev, err := parseFailOn(s)
	if err != nil || sev == "" {
		return 0, false, err
	}
	switch diagnose.Severity(sev).Rank() {
	case diagnose.SeverityCritical.Rank(), diagnose.SeverityHigh.Rank():
		return helmgov.SeverityError, true, nil
	case diagnose.SeverityMedium.Rank(), diagnose.SeverityLow.Rank():
		return helmgov.SeverityWarning, true, nil
	}
	return helmgov.SeverityInfo, true, nil
}
