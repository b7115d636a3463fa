// An app that imports PreflightDevices gets PreflightError and the rest of the model with it.
// PreflightCore's codecs and analysis are internal: the WAV reader and level meters are used,
// not shown.
@_exported public import PreflightModel
