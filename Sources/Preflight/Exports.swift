// `import Preflight` is all an app needs: the report, errors, warnings, quality scales and call
// states come from PreflightModel, re-exported here. The codecs and transports (PreflightCore,
// PreflightNIO) are internal imports, not part of this module's API.
@_exported public import PreflightModel
