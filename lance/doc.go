// Package lance is a Go implementation of the subset of the Lance table
// format pggraph needs, on top of objstore, proven against the official
// Lance (npm @lancedb/lancedb 0.31.0 = Lance 8.0.0) by the interop tests.
//
// Model:
//
//   - A Dataset is an immutable snapshot of one version of one branch
//     (main = the dataset root; a native branch lives under
//     tree/<branch>/ with a ref in _refs/branches/). Open finds the
//     latest version by reading _versions/latest_version_hint.json and
//     probing forward (galloping Stats); only a missing or bogus hint
//     makes it list _versions/. Dataset.Latest probes N+1 only (one Stat
//     when nothing changed): the hot path never lists.
//
//   - Read-your-writes memory (written.go): the rows of the small data
//     files this process appended, updated or compacted lately are kept
//     (bounded) by object key, and Dataset.WrittenColumn serves a
//     fragment's column from them when a scan would read exactly those
//     rows (one data file, no deletion file, same field id and type):
//     the next commit's key index need not reopen the previous commit's
//     one-row file, nor compaction the small files it rewrites.
//
//   - Manifest naming: V2 (default, u64::MAX-version, 20 digits) or V1
//     ({version}.manifest); the scheme is detected per _versions
//     directory and kept; finding both is ErrMixedNaming.
//
//   - Writing is two-phase. Staging (StageOperation and the Stage*
//     helpers) makes the data files, deletion files and the transaction
//     file _transactions/{read_version}-{uuid}.txn durable and moves no
//     HEAD; a Staged carries its UUID and read version. With
//     StageOptions.InlineOnly no transaction file is written and the
//     manifest names none: the manifest's inline section is the only
//     copy (graph.Root's __manifest versions, docs/write-protocol.md
//     §7.6). Commit builds
//     manifest N+1 from the latest manifest N plus the transaction (as
//     Lance does: fragments sorted by id, new ids from max_fragment_id,
//     flags recomputed, timestamp, writer version, transaction file and
//     an inline transaction section) and publishes it with PutIfAbsent.
//     CommitExact lands at read_version+1 or returns a *ConflictError
//     carrying the winner's transaction (zero retries); CommitRebase
//     vets every version since read_version with Lance 8's conflict rules
//     (conflict.go, pinned cell by cell by TestCompatibleMatrix): Append
//     over anything but Overwrite/Restore/UpdateMemWalState; Delete/Update
//     over a Delete/Update of the same fragments is rebased by merging
//     the deletion vectors — the staged transaction file is rewritten to
//     what is committed — unless a fragment was removed or its data files
//     changed, which is retryable, as is an overlapping Rewrite or
//     DataReplacement; Overwrite over an Overwrite is retryable (as Lance
//     8 reports it) and incompatible when both set a config key, over an
//     UpdateConfig only when the config keys (decoded: upserts and
//     deletes) meet; operation kinds Lance 8 does not have are
//     retryable. Lost slots are retried with bounded, jittered backoff.
//     A version whose transaction cannot be read is a
//     *MissingTransactionError, never guessed. A slot that holds our own
//     UUID counts as committed. The version hint is written best effort,
//     without fsync (objstore.PutVolatile), at every commit; readers never
//     trust it (see Open above).
//     A commit builds its new Dataset from the manifest it encoded (the
//     package's tests check that a decode of the stored bytes agrees).
//
//   - Tags live in _refs/tags/{name}.json with Lance's camelCase keys
//     (branch, version, createdAt, updatedAt, manifestSize, metadata),
//     created with PutIfAbsent.
//
//   - Native branches (branch.go) as Lance 8 lays them out. CreateBranch
//     forks branch B from any branch at version V: the ref
//     _refs/branches/{B with '/' as %2F}.json (parentBranch, identifier
//     {version_mapping: parent's mapping + [V, fresh 32-hex id]},
//     parentVersion, createAt, manifestSize of the parent's manifest at
//     V, metadata) is written first with PutIfAbsent — it is the commit
//     point, so of two creators one wins and the other gets
//     ErrBranchExists — then tree/B/_versions/{V}: the parent's manifest
//     at V re-committed by a shallow Clone transaction (its UUID is the
//     ref's newest id), branch = B, a base path (absolute, dataset root,
//     named after the parent branch) for the parent's directory that
//     every inherited data and deletion file points at, flags
//     recomputed; branch manifests are always V2-named, even under a V1
//     root (as Lance names them). Commits on B continue at V+1 under
//     tree/B/. A ref
//     without its first manifest (creator crashed) is finished by the
//     next Open; before a first manifest is written, whatever an earlier
//     incarnation of the name left under tree/B/ is reclaimed, so none
//     of its versions leak into the new history. DeleteBranch refuses a
//     branch others were forked from (ErrBranchInUse), deletes the ref,
//     then reclaims tree/B/ — unless another branch's tree is nested
//     below it, in which case (like Lance) the tree is left. Tags into a
//     deleted branch are left dangling, as Lance leaves them. Creating a
//     branch needs the dataset's absolute location (Options.Location or
//     objstore.Local), since Lance records it. Branch and tag names are
//     validated as Lance does (Unicode letters and digits, '.', '-',
//     '_'; checked name by name against the oracle).
//
//   - Reading: Scan streams the live rows of a version fragment by
//     fragment (id order) in arrow-go batches, with projection, deletion
//     vectors applied, optional "_rowaddr" column ((fragment_id << 32) |
//     offset), and two pushdown hooks: a row-address set (fragments
//     without selected rows are never opened) and a fragment filter.
//     No column statistics exist, so there is no min/max pruning. Take
//     fetches rows by address in the requested order. With an address set
//     each fragment is read as sorted row ranges (runs of selected rows,
//     gaps of up to 64 rows folded in) through lance/file's row ranges:
//     only the pages overlapping selected rows are fetched and decoded,
//     and fragments with no selected row are never opened; a page of
//     which few rows are wanted is read sparsely (only the chunks holding
//     them; lance/file's doc). Opened data files are shared process-wide
//     (file.OpenCached: data files are written once under unique names,
//     IsDataFileKey), and decoded deletion vectors and scan plans
//     (projected columns and output schema per dataset schema) are
//     cached, so a point lookup does no per-call metadata work. Data files are
//     read with lance/file (see its doc for the encodings it decodes);
//     files of inherited fragments are found through base_paths, mapped
//     onto the store with Options.Location.
//
//   - Writing data: StageOverwrite (and Create), StageAppend and
//     StageUpdate stream an array.RecordReader into data files written
//     with lance/file under the branch's data/, starting a new file
//     (fragment) at MaxRowsPerFile rows or about MaxBytesPerFile bytes of
//     Arrow data (batches are split as needed). A file is built in one
//     contiguous buffer (the store's Put takes whole objects) and handed,
//     once full, to one of two background workers that store it while
//     the next file is encoded (put_pipeline.go), so encoding overlaps
//     the writes and fsyncs of the previous files, and one file's fsync
//     overlaps the next one's; the hand-off has no queue, so memory holds
//     at most three files' worth (two being stored, one being built; the
//     buffers are reused from file to file) plus the current batch,
//     however long the stream. A failed Put stops the write with its
//     error. StageDelete and StageUpdate write one merged .bin deletion
//     vector per touched fragment and drop fragments left without live
//     rows. New datasets
//     carry the lance-encoding field metadata that keeps later Lance
//     writers on plain encodings.
//
//   - Compaction (compact.go): StageCompaction plans groups of adjacent
//     fragments that are small (< TargetRowsPerFragment physical rows)
//     or carry deletions, as Lance's optimize does, reads each group's
//     live rows and writes them as new fragments without deletion files,
//     and stages one Rewrite{groups: old fragment messages → new
//     fragments with id 0}. Commit removes each group's old fragments
//     (all must still exist) and assigns the new ones ids past
//     max_fragment_id (Lance assigns id-0 fragments the same way; its
//     own optimize reserves them first with a ReserveFragments commit,
//     which we skip so a compaction is one version). Rows are preserved,
//     row addresses are not. As the committed side of a rebase a Rewrite
//     conflicts (retryable) with a Delete/Update/Rewrite/DataReplacement
//     of a fragment it rewrote, with Merge and CreateIndex, and is
//     incompatible with Overwrite/Restore; an Append, ReserveFragments,
//     UpdateConfig or Project rebases (TestCompatibleMatrix row
//     Rewrite(1), TestCompactionRebase). The official Lance reads our
//     compacted dataset exactly and commits on top of it
//     (TestCompactionRewritesSmallFragments). CompactionCandidates
//     counts the fragments a compaction would rewrite (no I/O).
//
// Implemented operations: Overwrite (create), Append, Delete, Update
// (rewrite rows), Rewrite (compaction), Restore, ReserveFragments, Clone
// (branch creation).
// Read past, not written: Merge, Project, UpdateConfig,
// DataReplacement, CreateIndex and any other operation in a committed
// transaction (for conflict checks). Refused for writing
// (format.UnsupportedError): stable row ids (flag 2), unknown feature
// flags, an index section, unknown manifest fields, adding 2.1 data
// files to a dataset of another data storage version. Not implemented
// here: cleanup, indices, stable row ids.
//
// Measuring: MeasureThroughput writes a 6-column table of N rows next to
// a raw sequential write+fsync of the same bytes and scans it back,
// reporting rows/s, MB/s, the write/raw ratio, decoded MB/s, the CPU
// seconds of each phase and the peak heap while writing
// (TestMeasureThroughput; LANCE_THROUGHPUT_ROWS=10000000 for the 10M-row
// figure); `pgproxy bench --suite lance` (make bench) runs it. The
// benchmarks BenchmarkStageOverwrite and BenchmarkScan (LANCE_BENCH_ROWS,
// default 1Mi rows) report cpu-ms/op next to wall time.
//
// Performance (2026-11-29, `pgproxy bench --suite lance`, 10M rows × 6
// columns = 570 MB of data files in 10 files, 535 MB of Arrow data, on
// the project's shared 2-vCPU VM; ratios are within one round; the load
// average of the VM is given because wall rates depend on it):
//
//   - Write/raw: load ~4, 9 rounds: 0.48 0.62 0.65 0.67 1.08 1.12 1.17
//     2.06 2.61; load ~8, 9 rounds (final code): 0.42 0.46 0.47 0.66 0.69
//     0.91 1.07 1.10 1.14; load 15–21, 8 rounds: 0.50–2.44. 5–16M rows/s
//     at load ≤ 8. Before this work: 0.39–0.50 (issue), 0.51–1.86 for the
//     old binary at load 15. The ratio depends on which disk the raw
//     phase meets: at disk speed (80–1000 MB/s; one 570 MB fsync) the
//     write overlaps encoding with two files' fsyncs and reaches 0.66–2.6;
//     when the host's write-back cache absorbs the raw write (1.3–1.5 GB/s,
//     0.4 s for 570 MB, 0.14 CPU-s) the write is bound by its own CPU:
//     0.6–0.7 CPU-s for 570 MB (encoding on two cores, the copy into the
//     file buffer, the kernel copy), 0.62–0.67 s wall at load ~4 (ratio
//     0.62–0.67) but 0.9–1.0 s at load ~8, where the process gets about
//     two thirds of a core (ratio 0.42–0.47). The target (≥ 0.5) is met
//     at disk speed always and against the host cache only when the VM is
//     not busy. Peak heap while writing: 250–275 MB at 10M rows (three
//     file buffers of ~64 MB, two page-encoding sets, the batch) and 226 MB
//     at 3M rows: bounded by the file size, not the table (old: 225–236 MB
//     with one buffer plus a joined copy).
//
//   - Full scan from the page cache: load ~4: 1.28–2.27 GB/s (9 rounds);
//     load ~8: 0.60–1.31 GB/s; load 15–21: 0.25–0.71 GB/s. CPU cost is
//     0.9–1.7 GB decoded per CPU-second in every phase (BenchmarkScan:
//     ~40 cpu-ms per 57 MB, was ~81), so ≥ 1 GB/s needs about two thirds
//     of a core: met when the VM is not saturated, out of reach at load
//     15–21 where the process got 0.25–0.55 of a core. Per byte what
//     remains is the store's read (a zeroed buffer plus the kernel copy:
//     ~45% of scan CPU), decoding (~35%: one in-place gather, offsets,
//     validity) and GC.
package lance
