import Foundation
import Synchronization
import XCTest

@testable import Search

/// Plugin runs forked by the warm interpreter, with real python3: output, exit codes, timeouts that kill the whole
/// process group, the output cap, and a server that dies.
final class NovaForkServerTests: XCTestCase {
    private var directory = ""
    private var server: NovaForkServer!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.path + "/nova-fork-\(UUID().uuidString)"
        try NovaScripts.install(into: directory)
        let engines: [String: String] = [
            "fast": """
            from novaprinter import prettyPrinter
            class fast(object):
                url = "http://fast.example"
                name = "Fast"
                supported_categories = {"all": "0"}
                def search(self, what, cat="all"):
                    import os
                    for i in range(3):
                        prettyPrinter({"link": "magnet:?xt=urn:btih:%040d" % i, "name": what + str(i) + os.environ.get("QBTD_TEST_MARK", ""),
                                       "size": "1 KB", "seeds": 1, "leech": 0, "engine_url": self.url, "desc_link": ""})
            """,
            "hang": """
            import subprocess, sys, time
            class hang(object):
                url = "http://hang.example"
                name = "Hang"
                supported_categories = {"all": "0"}
                def search(self, what, cat="all"):
                    # A grandchild holding stdout: the kill must reach it too, or the output never ends.
                    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                    print("waiting", flush=True)
                    time.sleep(60)
            """,
            "loud": """
            class loud(object):
                url = "http://loud.example"
                name = "Loud"
                supported_categories = {"all": "0"}
                def search(self, what, cat="all"):
                    while True:
                        print("x" * 1000, flush=True)
            """,
            "broken": """
            class broken(object):
                url = "http://broken.example"
                name = "Broken"
                supported_categories = {"all": "0"}
                def search(self, what, cat="all"):
                    raise RuntimeError("the site changed")
            """,
        ]
        for (name, text) in engines {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(directory)/engines/\(name).py"))
        }
        server = try NovaForkServer(python: "/usr/bin/python3", script: directory + "/qbtd_forkserver.py",
                                    fifoDirectory: directory + "/.runs")
    }

    override func tearDown() {
        server?.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func run(_ engine: String, timeout: Duration = .seconds(30), maxOutput: Int = 1 << 20,
                     environment: [String: String] = [:]) async -> (NovaProcess.Ending, [String]) {
        let lines = Mutex<[String]>([])
        let process = NovaProcess(python: "/usr/bin/python3", script: directory + "/qbtd_run.py",
                                  arguments: [engine, "all", "ubuntu"], environment: environment, server: server)
        let ending = await process.run(timeout: timeout, maxOutput: maxOutput) { got in
            lines.withLock { $0 += got.map(String.init) }
        }
        return (ending, lines.withLock { $0 })
    }

    func testForkedRunsPrintTheirResultsUnderTheirOwnEnvironment() async {
        let (first, lines) = await run("fast", environment: ["QBTD_TEST_MARK": "!"])
        XCTAssertEqual(first, .finished)
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[0].hasPrefix("magnet:?xt=urn:btih:") && lines[0].contains("|ubuntu0!|1024|"), lines[0])
        // The next run is forked by the same warm server, without the first one's environment.
        let (second, again) = await run("fast")
        XCTAssertEqual(second, .finished)
        XCTAssertTrue(again[0].contains("|ubuntu0|"), again[0])
    }

    func testATimeoutKillsTheWholeProcessGroup() async {
        let started = ContinuousClock.now
        let (ending, lines) = await run("hang", timeout: .seconds(1))
        XCTAssertEqual(ending, .timedOut)
        XCTAssertEqual(lines, ["waiting"])
        // SIGTERM at 1 s reaches the grandchild that holds stdout; the output ends with it.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20))
    }

    func testTooMuchOutputStopsTheRun() async {
        let (ending, _) = await run("loud", maxOutput: 64 << 10)
        XCTAssertEqual(ending, .tooMuchOutput)
    }

    func testAFailingPluginSaysWhy() async {
        let (ending, _) = await run("broken")
        guard case .failed(let why) = ending else { return XCTFail("\(ending)") }
        XCTAssertTrue(why.hasPrefix("exit code 1"), why)
        XCTAssertTrue(why.contains("RuntimeError: the site changed"), why)
    }

    func testAServerThatDiesIsReplacedAndARunningPluginIsToldItIsLost() async throws {
        let process = NovaProcess(python: "/usr/bin/python3", script: directory + "/qbtd_run.py",
                                  arguments: ["hang", "all", "x"], server: server)
        async let ending = process.run(timeout: .seconds(30), maxOutput: 1 << 20) { _ in }
        try await Task.sleep(for: .milliseconds(500))
        server.shutdown()  // the server goes; its child dies with it (PR_SET_PDEATHSIG)
        guard case .failed = await ending else { return XCTFail("a run whose server died must fail") }
        let (next, lines) = await run("fast")
        XCTAssertEqual(next, .finished)
        XCTAssertEqual(lines.count, 3)
    }
}
