// Rate-limit tests pre-fill the limiter's counter document for the current window. To keep
// the window from ending between that write and the request, wait out the last seconds of a
// window first; returns the window's start (unix seconds), as the limiter computes it.
export async function windowStart(windowSeconds: number, marginSeconds = 5): Promise<number> {
  let now = Date.now() / 1000;
  const left = windowSeconds - (now % windowSeconds);
  if (left < marginSeconds) {
    await new Promise((r) => setTimeout(r, Math.ceil(left * 1000) + 50));
    now = Date.now() / 1000;
  }
  const sec = Math.floor(now);
  return sec - (sec % windowSeconds);
}
