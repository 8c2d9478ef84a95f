package sim

import "github.com/qstools/tgmigrate/diagnose"

// ClusterName is the name [World.DiagnoseSources] gives the world's cluster.
const ClusterName = "sim"

// DiagnoseSources returns the world as diagnose reads it: one account
// ([DefaultAccountID] in [DefaultRegion]) whose ELBv2 client is [World.AWS]
// (with Config.Wire the real SDK client through the endpoint, otherwise
// [World.ELBv2]), so that diagnose's calls take the system under test's
// path and are counted with its calls, and one cluster, [ClusterName], read
// through [World.Client], with the VPC and the VPC CIDR its nodes and pods
// draw from. There is no EC2 client: the simulator has no EC2 API, so
// public nodes show as ExternalIPs only. Run diagnose on the world's clock
// (diagnose.WithClock(w.Clock())).
func (w *World) DiagnoseSources() diagnose.Sources {
	return diagnose.Sources{
		Accounts: []diagnose.Account{{ID: DefaultAccountID, Region: DefaultRegion, ELBv2: w.AWS()}},
		Clusters: []diagnose.Cluster{{
			Name: ClusterName, Reader: w.Client(), VPCID: w.legacy.VPCID, CIDRs: []string{w.cl.VPCCIDR()},
		}},
	}
}
