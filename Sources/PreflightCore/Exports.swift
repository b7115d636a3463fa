// The app's vocabulary (report, errors, warnings, quality scales, call states) lives in
// PreflightModel; everything built on PreflightCore sees it through this re-export.
@_exported public import PreflightModel
