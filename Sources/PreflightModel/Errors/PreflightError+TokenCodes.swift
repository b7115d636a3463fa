extension PreflightError.Code {
    // MARK: Access tokens (Twilio's published codes)

    /// 20101: the access token is not a valid token (not a JWT, undecodable parts).
    public static let invalidAccessToken = Self(20101)
    /// 20102: the token's header is not acceptable (algorithm other than HS256, including `none`; wrong type).
    public static let invalidAccessTokenHeader = Self(20102)
    /// 20103: the token's issuer (API key) is unknown, or its subject (account) is missing.
    public static let invalidAccessTokenIssuer = Self(20103)
    /// 20104: the token has expired, or its expiry is missing or invalid.
    public static let accessTokenExpired = Self(20104)
    /// 20105: the token is not valid yet (`nbf` in the future).
    public static let accessTokenNotYetValid = Self(20105)
    /// 20106: the token's grants lack what the request needs (identity, voice grant).
    public static let invalidAccessTokenGrants = Self(20106)
    /// 20107: the token's signature does not match its issuer's secret.
    public static let invalidAccessTokenSignature = Self(20107)
    /// 20157: the token's lifetime (expiry minus issue time) exceeds the maximum, 24 hours by default.
    public static let accessTokenLifetimeTooLong = Self(20157)
}
