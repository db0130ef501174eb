package slurm

import "testing"

// A line as scontrol 22.05 prints it (shortened), and a second job whose ID
// starts with the first one's, which a prefix match would confuse.
const scontrolOut = `JobId=12 JobName=sbatch UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=COMPLETING Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 NodeList=node[1-4] BatchHost=node1
JobId=123 JobName=sbatch UserId=root(0) GroupId=root(0) JobState=NODE_FAIL Reason=NodeDown Dependency=(null) NodeList=node[1-4]
`

func TestParseJobState(t *testing.T) {
	cases := []struct{ id, want string }{
		{"12", "COMPLETING"},
		{"123", "NODE_FAIL"},
	}
	for _, tc := range cases {
		got, err := ParseJobState(scontrolOut, tc.id)
		if err != nil || got != tc.want {
			t.Errorf("ParseJobState(job %s) = %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
	for _, id := range []string{"1", "1234", ""} {
		if got, err := ParseJobState(scontrolOut, id); err == nil {
			t.Errorf("ParseJobState(job %q) = %q, want an error: no such job", id, got)
		}
	}
	if got, err := ParseJobState("JobId=7 JobName=x Reason=None\n", "7"); err == nil {
		t.Errorf("ParseJobState without JobState = %q, want an error", got)
	}
}

func TestIsFinal(t *testing.T) {
	final := []string{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}
	running := []string{"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "REQUEUED", "SUSPENDED", "SPECIAL_EXIT", ""}
	for _, s := range final {
		if !IsFinal(s) {
			t.Errorf("IsFinal(%q) = false, want true", s)
		}
	}
	for _, s := range running {
		if IsFinal(s) {
			t.Errorf("IsFinal(%q) = true, want false", s)
		}
	}
}

func TestIsJobID(t *testing.T) {
	for s, want := range map[string]bool{"1": true, "4242": true, "": false, "12;c": false, "x1": false, " 1": false} {
		if got := isJobID(s); got != want {
			t.Errorf("isJobID(%q) = %v, want %v", s, got, want)
		}
	}
}
