package exec

import (
	"errors"
	"sync/atomic"
)

// Parallel pipelines and join spills. A pipeline's hash joins are built
// once before its workers start, and the workers probe the built table
// together; a grace join (spill_join.go) partitions its probe side
// instead, which the workers cannot share. So a pipeline builds each of
// its joins as the serial join would (buildOrSpill): when a build side
// passes work_mem (or the server-wide account is under pressure), the
// pipeline gives up before any worker started and any row was emitted,
// hands what it built to the serial run, and the consumer (the parallel
// aggregate or top-N) runs serially. The serial join takes its build
// from the hand-over, so no build side is read twice (a volatile or
// side-effecting build input runs once, as without the fallback), and a
// join whose build spilled runs as a grace join: a large join under a
// small budget spills instead of failing with 53200.

// errPipelineSpilled ends a pipeline whose join build spilled; the
// caller runs its serial plan.
var errPipelineSpilled = errors.New("exec: pipeline join spilled")

// prebuiltJoin is a join's build side made by a pipeline that gave up:
// an in-memory table or a spilled grace join (one of them).
type prebuiltJoin struct {
	jt *joinTable
	g  *graceJoin
}

// handOver keeps a pipeline's builds for the serial run.
func (rc *runCtx) handOver(j *joinNode, pb prebuiltJoin) {
	if rc.prebuilt == nil {
		rc.prebuilt = map[*joinNode]prebuiltJoin{}
	}
	rc.prebuilt[j] = pb
}

// takePrebuilt returns (and forgets) the build a pipeline made for j.
func (rc *runCtx) takePrebuilt(j *joinNode) (prebuiltJoin, bool) {
	pb, ok := rc.prebuilt[j]
	if ok {
		delete(rc.prebuilt, j)
	}
	return pb, ok
}

// dropPrebuilt frees the builds the serial run did not use (it stopped
// early, or failed before reaching the join).
func (rc *runCtx) dropPrebuilt() {
	for j, pb := range rc.prebuilt {
		if pb.jt != nil {
			pb.jt.free(rc)
		}
		if pb.g != nil {
			pb.g.close()
		}
		delete(rc.prebuilt, j)
	}
}

// buildStage builds a pipeline join's table. A build that spilled is
// handed over with the tables of the stages built before it (their jt
// cleared: the pipeline no longer frees them) and errPipelineSpilled
// returned.
func (pl *pipeline) buildStage(ec *evalCtx, j *joinNode) (*joinTable, error) {
	if !j.graceable() {
		return j.build(ec)
	}
	jt, g, err := j.buildOrSpill(ec)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return jt, nil
	}
	pipelineSpills.Add(1)
	ec.run.handOver(j, prebuiltJoin{g: g})
	for k := range pl.stages {
		if s := pl.stages[k]; s.join != nil && s.jt != nil {
			ec.run.handOver(s.join, prebuiltJoin{jt: s.jt})
			pl.stages[k].jt = nil
		}
	}
	return nil, errPipelineSpilled
}

// pipelineSpills counts pipelines that gave up for a spilled join build
// (tests: the fallback ran).
var pipelineSpills atomic.Int64

// runPrebuilt runs j over the build a pipeline handed over: a grace join
// when it spilled, else a hash join probing the built table.
func (j *joinNode) runPrebuilt(ec *evalCtx, pb prebuiltJoin, emit func(*Batch) error) error {
	recordMethod(ec, j, "hash")
	if pb.g != nil {
		return j.runGrace(ec, pb.g, emit)
	}
	hr := j.hashRunOf(pb.jt)
	defer hr.free(ec)
	if err := j.left.run(ec, func(lb *Batch) error { return hr.probe(ec, lb, emit) }); err != nil {
		return err
	}
	return hr.finish(ec, emit)
}
