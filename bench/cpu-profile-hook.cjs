// Preloaded by bench/cpu-profile-math.ts (NODE_OPTIONS=--require): the first SIGWINCH (SIGUSR2 is
// one of Temporal's worker shutdown signals) starts V8's
// sampling profiler on the main thread, the second writes `<SVC_CPU_PROFILE_DIR>/<pid>.cpuprofile`.
// (`--cpu-prof` itself is refused in NODE_OPTIONS and would profile the start-up too.)
// With SVC_HEAP_PROFILE=1 the same window also runs V8's sampling heap profiler, counting every
// sampled allocation, collected or not (`<pid>.heapprofile`): where the garbage comes from.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const dir = process.env.SVC_CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let running = false;
  process.on('SIGWINCH', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      if (process.env.SVC_HEAP_PROFILE === '1')
        session.post('HeapProfiler.enable', () =>
          session.post('HeapProfiler.startSampling', {
            samplingInterval: 16384,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          }),
        );
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      if (!err) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
    if (process.env.SVC_HEAP_PROFILE === '1')
      session.post('HeapProfiler.stopSampling', (err, res) => {
        if (!err) writeFileSync(path.join(dir, `${process.pid}.heapprofile`), JSON.stringify(res.profile));
      });
  });
}
