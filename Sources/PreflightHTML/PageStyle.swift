/// The pages' shared head: inline CSS only (no external asset, no script), so that a saved page
/// opens anywhere and the edge can forbid everything else with its Content-Security-Policy.
enum PageStyle {
    /// `<!doctype html>` to `<body>`, with `title`.
    static func head(_ title: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLText.escape(title))</title>
        <style>
        body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
        main{max-width:980px;margin:0 auto;padding:24px}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
        .muted{color:#5b6475}.card{background:#fff;border-radius:8px;padding:16px;box-shadow:0 1px 2px #0002;margin:12px 0}
        .verdict{border-left:6px solid #999}.verdict.good{border-color:#1a8f4a}.verdict.fair{border-color:#d99a00}
        .verdict.bad{border-color:#c62828}.verdict h2{margin-top:0}
        .figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px}
        .figure{background:#fff;border-radius:8px;padding:10px;box-shadow:0 1px 2px #0002}
        .figure b{display:block;font-size:20px}
        table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
        th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e4e6eb;vertical-align:top}
        th{background:#eef0f4}svg{background:#fff;border-radius:8px;box-shadow:0 1px 2px #0002;max-width:100%}
        pre{background:#fff;padding:12px;overflow:auto;max-height:480px;font-size:12px}pre.wrap{white-space:pre-wrap;word-break:break-all}
        form.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:end}form.filters label{display:flex;flex-direction:column;font-size:12px}
        a{color:#1a5fb4}
        </style></head><body><main>
        """
    }

    /// Closes what ``head(_:)`` opened.
    static let tail = "</main></body></html>\n"
}
