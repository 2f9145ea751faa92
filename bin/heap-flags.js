// The V8 heap flags the long-running commands start with (docs/memory.md): bin/booking-service.js
// adds them, and the availability bench gives them to the process its servers run in, so that
// it measures what `serve` does.
export const SERVICE_HEAP_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=50'];
