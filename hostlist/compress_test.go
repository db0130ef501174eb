package hostlist

import (
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

func TestCompress(t *testing.T) {
	cases := []struct {
		hosts []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"node1"}, "node1"},
		{[]string{"a", "b", "c"}, "a,b,c"},
		{[]string{"node01", "node02", "node03", "node07"}, "node[01-03,07]"},
		{[]string{"node1", "node2", "gpu1", "gpu2"}, "node[1-2],gpu[1-2]"},
		{[]string{"node08", "node09", "node10", "node100"}, "node[08-10,100]"},
		{[]string{"node98", "node99", "node100"}, "node[98-100]"},
		{[]string{"node9", "node09"}, "node[9,09]"},
		{[]string{"n2", "n1"}, "n[2,1]"},
		{[]string{"n1", "n1"}, "n[1,1]"},
		{[]string{"n1", "m", "n2"}, "n1,m,n2"},
		{[]string{"1", "2", "3"}, "[1-3]"},
		{[]string{"gpu1-ib", "gpu2-ib"}, "gpu1-ib,gpu2-ib"},
		{[]string{"rack1-node1", "rack1-node2", "rack2-node1"}, "rack1-node[1-2],rack2-node1"},
		{[]string{"n18446744073709551615", "n0"}, "n[18446744073709551615,0]"},
		{[]string{"n99999999999999999999", "n99999999999999999998"}, "n99999999999999999999,n99999999999999999998"},
	}
	for _, c := range cases {
		if got := Compress(c.hosts); got != c.want {
			t.Errorf("Compress(%q) = %q, want %q", c.hosts, got, c.want)
		}
	}
}

// TestCompressRoundTrip builds random host lists in the shapes clusters use
// and checks that Expand reads every Compress result back unchanged.
func TestCompressRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	prefixes := []string{"", "n", "node", "gpu-", "rack1-node", "10.0.0."}
	for i := 0; i < 2000; i++ {
		var hosts []string
		for k := rng.Intn(40) + 1; k > 0; k-- {
			p := prefixes[rng.Intn(len(prefixes))]
			num := strconv.Itoa(rng.Intn(30))
			if rng.Intn(3) == 0 {
				num = "0" + num
			}
			if p == "" && rng.Intn(4) == 0 {
				hosts = append(hosts, "login")
				continue
			}
			hosts = append(hosts, p+num)
		}
		back, err := Expand(Compress(hosts))
		if err != nil || !slices.Equal(back, hosts) {
			t.Fatalf("Compress(%q) = %q, expands to %q, %v", hosts, Compress(hosts), back, err)
		}
	}
}
