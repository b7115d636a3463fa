import PreflightCLI

await PreflightCommand.runFromProcessArguments()
