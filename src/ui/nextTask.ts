/**
 * Resolves in a task of its own, posted at once: a MessageChannel message (a nested
 * `setTimeout(0)` is clamped to 4 ms). Where there is no MessageChannel, `setTimeout(0)`.
 * For work split across tasks so that none is long (> 50 ms, the Long Tasks API's threshold).
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof MessageChannel !== 'function') {
      setTimeout(resolve, 0);
      return;
    }
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}
