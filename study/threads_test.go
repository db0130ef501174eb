package study

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseThreads(t *testing.T) {
	cases := []struct {
		in   string
		want []int
	}{
		{"1..512", []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}},
		{"1..4", []int{1, 2, 4}},
		{"3..40", []int{4, 8, 16, 32}},
		{"4..4", []int{4}},
		{"1,2,4,6", []int{1, 2, 4, 6}},
		{" 8 , 1 ", []int{8, 1}},
		{"1..8,12", []int{1, 2, 4, 8, 12}},
		{"7", []int{7}},
	}
	for _, c := range cases {
		got, err := ParseThreads(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseThreadsErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "empty item"},
		{"1,,2", "empty item"},
		{"0..4", "need at least 1"},
		{"-2", "need at least 1"},
		{"8..1", "runs backwards"},
		{"5..7", "no power of two between 5 and 7"},
		{"1,2,2", "2 threads given twice"},
		{"1..4,2", "2 threads given twice"},
		{"four", `"four" is not a whole number`},
		{"1..", `"" is not a whole number`},
		{"1..2..4", `"2..4" is not a whole number`},
		{"1..99999999999", "more than 1048576"},
	}
	for _, c := range cases {
		_, err := ParseThreads(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

func TestFormatThreads(t *testing.T) {
	if got := FormatThreads([]int{1, 2, 16}); got != "1, 2, 16" {
		t.Errorf("got %q", got)
	}
}

// A list of queue depths reads as a thread list does, and its errors
// speak of depths, not threads.
func TestParseDepthsSpeaksOfDepths(t *testing.T) {
	if got, err := ParseDepths("1..32"); err != nil || FormatThreads(got) != "1, 2, 4, 8, 16, 32" {
		t.Errorf("1..32: %v %v", got, err)
	}
	for in, want := range map[string]string{
		"0":    "depth 0: need at least 1",
		"8,8":  "depth 8 given twice",
		"deep": `"deep" is not a whole number of operations in flight (a queue depth)`,
	} {
		if _, err := ParseDepths(in); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
