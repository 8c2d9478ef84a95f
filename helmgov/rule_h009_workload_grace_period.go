package helmgov

// This file holds rule TGM-H009, a workload behind ip targets has a
// terminationGracePeriodSeconds that covers its preStop delay and the app's
// shutdown: its ID, documentation, check and fix.

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// RuleWorkloadGracePeriod: the grace period covers the preStop delay (at
// least the safe one) plus the shutdown margin (Options.GracePaddingSeconds).
const RuleWorkloadGracePeriod RuleID = "TGM-H009"

// workloadGracePeriod is rule TGM-H009.
type workloadGracePeriod struct{}

func (workloadGracePeriod) doc() Rule {
	return Rule{
		ID: RuleWorkloadGracePeriod, Name: "workload-grace-period", Severity: SeverityWarning, Fixable: true,
		Summary: "terminationGracePeriodSeconds covers the preStop delay and the app's shutdown",
		Doc: "The grace period (default 30 s) includes the preStop hook: when it runs out, the kubelet kills a container " +
			"still in its preStop delay or still shutting down after it. The grace period is reported when it is shorter " +
			"than the longest readable preStop delay of the serving containers, or TGM-H008's safe delay when that is " +
			"longer or no delay can be read (no hook, httpGet, a command other than sleep), plus " +
			fmt.Sprint(defaultGracePaddingSeconds) + " seconds for the app to shut down (both configurable); the fix " +
			"sets that sum. With the safe delay that is " + fmt.Sprint(defaultPreStopSeconds+defaultGracePaddingSeconds) +
			" seconds, the grace period cutover's plan asks a workload for.",
	}
}

func (workloadGracePeriod) check(s *checkState) {
	safe := s.c.opts.PreStopSeconds
	for _, w := range s.workloads {
		if len(w.serving) == 0 {
			continue
		}
		var maxDelay int64
		for _, i := range w.serving {
			if delay, known, _ := preStopDelay(&w.spec.Containers[i]); known {
				maxDelay = max(maxDelay, delay)
			}
		}
		grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
		if w.spec.TerminationGracePeriodSeconds != nil {
			grace = *w.spec.TerminationGracePeriodSeconds
		}
		// The grace period must cover the delay TGM-H008 asks for (the
		// longer of the one seen and the safe one) and the shutdown
		// margin: cutover's plan asks the same of the workload, and
		// fixing both rules in one round then holds. With no hook, or
		// none whose delay can be read, that is the safe delay's: the
		// plan asks for it all the same.
		delay, which := maxDelay, "the preStop delay"
		if safe > maxDelay {
			delay, which = safe, "the safe preStop delay"
		}
		if want := delay + s.c.opts.GracePaddingSeconds; grace < want {
			gp := w.specPath.Append(PathStep{Key: "terminationGracePeriodSeconds"})
			s.add(w.it, RuleWorkloadGracePeriod, gp.String(), setTo(gp, want),
				"terminationGracePeriodSeconds is %d, shorter than %s of %d seconds plus %d seconds for the app to shut down; want %d",
				grace, which, delay, s.c.opts.GracePaddingSeconds, want)
		}
	}
}
