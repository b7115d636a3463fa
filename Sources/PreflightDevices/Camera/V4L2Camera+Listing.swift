import CV4L2
import Foundation

extension V4L2Camera {
    /// The cameras among `/dev/video*`: nodes that answer VIDIOC_QUERYCAP as streaming capture
    /// devices (a camera's metadata nodes do not). Nodes that cannot be opened are left out.
    /// - Parameter directory: where the nodes are; `/dev` by default.
    public static func cameras(in directory: String = "/dev") -> [CameraDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let nodes = names.filter { $0.hasPrefix("video") }.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        return nodes.compactMap { name -> CameraDevice? in
            let path = "\(directory)/\(name)"
            let descriptor = preflight_v4l2_open(path)
            guard descriptor >= 0 else { return nil }
            defer { preflight_v4l2_close(descriptor) }
            guard let found = try? query(descriptor: descriptor, device: path) else { return nil }
            return CameraDevice(id: path, name: found.name, bus: found.bus)
        }
    }
}
