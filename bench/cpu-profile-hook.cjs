// Preloaded by bench/cpu-profile-math.ts (NODE_OPTIONS=--require): the first SIGWINCH (SIGUSR2 is
// one of Temporal's worker shutdown signals) starts V8's
// sampling profiler on the main thread, the second writes `<SVC_CPU_PROFILE_DIR>/<pid>.cpuprofile`.
// (`--cpu-prof` itself is refused in NODE_OPTIONS and would profile the start-up too.)
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
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      if (!err) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
