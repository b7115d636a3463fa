/// A camera as the system lists it.
public struct CameraDevice: Sendable, Hashable, Codable {
    /// The identifier to select it with: the V4L2 device node on Linux (`/dev/video0`).
    public var id: String
    /// The name to show a person (the driver's card name, e.g. "HD Pro Webcam C920").
    public var name: String
    /// Where it is attached (the driver's bus info, e.g. `usb-0000:00:14.0-1`).
    public var bus: String

    /// Creates a camera record.
    public init(id: String, name: String, bus: String = "") {
        self.id = id
        self.name = name
        self.bus = bus
    }
}
