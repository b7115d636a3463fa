/// A libopus encoder or decoder state, only ever used under its owner's `Mutex`: libopus states
/// may move between threads but must not be used by two at once.
struct OpusHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
