"""The pure parts of `lab edges`: its percentile and the status probe it runs in a namespace."""

import ast
import unittest

from labkit.edges import Edge, percentile, status_probe


class EdgesTests(unittest.TestCase):
    def test_percentile_is_nearest_rank(self):
        values = [float(v) for v in range(1, 101)]
        self.assertEqual(percentile(values, 99), 99.0)
        self.assertEqual(percentile(values, 50), 50.0)
        self.assertEqual(percentile([7.0], 99), 7.0)
        self.assertEqual(percentile([3.0, 1.0, 2.0], 100), 3.0)

    def test_the_status_probe_is_python_that_polls_the_edge_with_its_key(self):
        edge = Edge.__new__(Edge)
        edge.status_url, edge.secret = "http://198.18.21.2:8080/status", "s3cret"
        source = status_probe(edge)
        ast.parse(source)
        self.assertIn("http://198.18.21.2:8080/status", source)
        self.assertIn("remoteRegistrations", source)
        self.assertIn("Authorization", source)


if __name__ == "__main__":
    unittest.main()
