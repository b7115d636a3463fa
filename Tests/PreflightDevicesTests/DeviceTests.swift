import PreflightTesting
import Testing

/// Every device test, one at a time: they start audio servers, run ffmpeg and compare audio
/// sample by sample, and together at once they would take the CPU from the timing-sensitive
/// network tests that run beside them.
@Suite(.realTime, .serialized) struct DeviceTests {}
