// PreflightError and its codes come with the codec.
@_exported public import PreflightModel
