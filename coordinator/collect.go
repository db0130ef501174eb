package coordinator

import (
	"context"
	"fmt"

	"ioswarm/barrier"
	"ioswarm/figures"
	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// collect converts every rank's records to the coordinator's clock, merges
// the latency histograms, and asks every rank for its bytes at the
// first-done moment.
func (j *job) collect(ctx context.Context, p *result.Phase, replies []wire.RunReply) error {
	merged := histogram.New()
	var intervals latencyIntervals
	var released []int64
	for r := range replies {
		rel, threads := onCoordinatorClock(r, j.members[r], j.s.targets[r].Host, replies[r])
		if replies[r].ReleasedAt != 0 {
			// (A rank with no threads in this phase was not released.)
			released = append(released, rel)
		}
		if h := replies[r].Histogram; h != nil {
			hr, err := histogram.FromSparse(h)
			if err != nil {
				return fmt.Errorf("rank %d: bad histogram: %w", r, err)
			}
			merged.Merge(hr)
		}
		if err := intervals.add(replies[r].Intervals); err != nil {
			return fmt.Errorf("rank %d: bad latency intervals: %w", r, err)
		}
		j.addThreads(p, replies[r].Threads, threads)
	}
	p.ReleaseSkewNS = figures.ReleaseSkew(released)
	p.Histogram = merged.Sparse()
	p.LatencySeries = intervals.series(j.release)
	return j.firstDoneBytes(ctx, p, replies)
}

// addThreads appends one rank's thread records (threads, already on the
// coordinator's clock, from their run records recs) to the phase, with
// the thread that wrote each file.
func (j *job) addThreads(p *result.Phase, recs []wire.ThreadRecord, threads []result.Thread) {
	for k, tr := range recs {
		p.Threads = append(p.Threads, threads[k])
		th := &p.Threads[len(p.Threads)-1]
		writer := tr.Thread
		if wire.Phase(p.Name).IsRead() {
			writer = j.sources[tr.Thread]
		}
		if !j.wholeFile(wire.Phase(p.Name)) {
			// (A random phase over a whole shared file touches every
			// thread's part: no one writer.)
			th.WrittenByThread, th.WrittenByHost = &writer, j.hostOfThread(writer)
		}
		p.Stonewalled = p.Stonewalled || tr.Stonewalled
	}
}

// firstDoneBytes tells every rank the moment the first thread finished
// and records the bytes (and metadata operations) each thread had done
// by then.
func (j *job) firstDoneBytes(ctx context.Context, p *result.Phase, replies []wire.RunReply) error {
	first := p.Threads[0].EndNS
	for _, t := range p.Threads {
		first = min(first, t.EndNS)
	}
	fd, err := callAll[wire.FirstDoneReply](ctx, j.s.coord, wire.KindFirstDone, "first-done", func(r int) any {
		return wire.FirstDone{At: j.members[r].ToRank(first)}
	})
	if err != nil {
		return fmt.Errorf("first-done bytes: %w", err)
	}
	i := 0
	for r, reply := range fd {
		if len(reply.Bytes) != len(replies[r].Threads) {
			return fmt.Errorf("rank %d: bad first-done reply (%d counts for %d threads)", r, len(reply.Bytes), len(replies[r].Threads))
		}
		for k, n := range reply.Bytes {
			p.Threads[i].BytesAtFirstDone = n
			if wire.Phase(p.Name).IsMeta() && k < len(reply.Ops) {
				p.Threads[i].OpsAtFirstDone = reply.Ops[k]
			}
			i++
		}
	}
	return nil
}

// onCoordinatorClock converts rank r's run reply to the coordinator's
// clock (m is its clock probe): the moment it released its threads, and
// its threads' records. Rank times become coordinator times only through
// m.FromRank, as coordinator times sent to a rank go through m.ToRank.
func onCoordinatorClock(r int, m barrier.MemberInfo, host string, rep wire.RunReply) (released int64, threads []result.Thread) {
	for _, tr := range rep.Threads {
		threads = append(threads, result.Thread{
			Host: host, Rank: r, Thread: tr.Thread, File: tr.File, Bytes: tr.Bytes, Ops: tr.Ops,
			StartNS: m.FromRank(tr.StartNS), EndNS: m.FromRank(tr.EndNS),
			IODepthAchievedMean: tr.DepthMean, IODepthAchievedMax: tr.DepthMax, IODepthSamples: tr.DepthSamples, FsyncNS: tr.FsyncNS, CloseNS: tr.CloseNS,
			IODepthKernelAtSubmitMean: tr.KernelDepthMean, IODepthKernelAtSubmitMax: tr.KernelDepthMax,
			IODepthKernelSamples: tr.KernelDepthSamples, IODepthKernelTimeMean: tr.KernelDepthTimeMean,
			IODepthKernelSpanNS: tr.KernelDepthSpanNS,
		})
		firstStopOnCoordinatorClock(&threads[len(threads)-1], m, tr)
		cpuTimeOf(&threads[len(threads)-1], tr)
	}
	return m.FromRank(rep.ReleasedAt), threads
}
