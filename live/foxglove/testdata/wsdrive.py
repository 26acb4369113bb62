"""wsdrive: a Foxglove WebSocket client written from the protocol's message
layouts (foxglove/ws-protocol docs/spec.md, and the Foxglove SDK's
PlaybackControlRequest / PlaybackState: rust/foxglove/src/protocol/common/
client/playback_control_request.rs, server/playback_state.rs), on Debian's
python3-websockets, independent of baglab's Go code.

usage: python3 wsdrive.py URL STEPS_JSON

STEPS_JSON is a list of steps run in order once serverInfo and the
channels have come:
  {"subscribe": "*"}                               every channel
  {"control": "play"|"pause", "speed": 1.0, "seek": NS|null, "id": "x"}
                                                   and wait for the answer
  {"sleep": SECONDS}
  {"until_ended": SECONDS}                         wait for PlaybackState Ended
Prints one JSON line per event received, each with "t" (seconds since
connecting): {"op": "serverInfo"|"advertise"|"status", ...} as sent,
{"op": "message", "topic", "log_time", "data"(hex)}, {"op": "time", "ns"},
{"op": "state", "status", "current_time", "speed", "did_seek", "request_id"},
and {"op": "step", "step": i} when step i starts.
"""
import asyncio
import json
import struct
import sys
import time

import websockets

STATUS = {0: "Playing", 1: "Paused", 2: "Buffering", 3: "Ended"}


def out(t0, ev):
    ev["t"] = round(time.monotonic() - t0, 4)
    print(json.dumps(ev), flush=True)


def control_request(command, speed, seek, request_id):
    rid = request_id.encode()
    return (struct.pack("<BBfBQI", 3, 0 if command == "play" else 1, speed,
                        0 if seek is None else 1, 0 if seek is None else seek, len(rid)) + rid)


async def main(url, steps):
    t0 = time.monotonic()
    channels = {}
    subs = {}
    states = asyncio.Queue()
    ready = asyncio.Event()
    info = {}
    async with websockets.connect(url, subprotocols=["foxglove.sdk.v1"], max_size=64 << 20) as ws:
        assert ws.subprotocol == "foxglove.sdk.v1", ws.subprotocol

        async def reader():
            async for frame in ws:
                if isinstance(frame, str):
                    m = json.loads(frame)
                    if m["op"] == "serverInfo":
                        info.update(m)
                    if m["op"] == "advertise":
                        for ch in m["channels"]:
                            channels[ch["id"]] = ch
                        ready.set()
                    out(t0, m)
                    continue
                op = frame[0]
                if op == 1:
                    sub, ns = struct.unpack_from("<IQ", frame, 1)
                    out(t0, {"op": "message", "topic": subs[sub], "log_time": ns, "data": frame[13:].hex()})
                elif op == 2:
                    (ns,) = struct.unpack_from("<Q", frame, 1)
                    out(t0, {"op": "time", "ns": ns})
                elif op == 5:
                    status, cur, speed, did_seek, n = struct.unpack_from("<BQfBI", frame, 1)
                    rid = frame[19:19 + n].decode()
                    ev = {"op": "state", "status": STATUS[status], "current_time": cur, "speed": speed,
                          "did_seek": bool(did_seek), "request_id": rid}
                    out(t0, ev)
                    await states.put(ev)
                else:
                    out(t0, {"op": "unknown", "opcode": op})

        task = asyncio.create_task(reader())
        await asyncio.wait_for(ready.wait(), 5)
        for i, step in enumerate(steps):
            out(t0, {"op": "step", "step": i})
            if "subscribe" in step:
                subscriptions = []
                for cid, ch in channels.items():
                    sid = len(subs) + 1
                    subs[sid] = ch["topic"]
                    subscriptions.append({"id": sid, "channelId": cid})
                await ws.send(json.dumps({"op": "subscribe", "subscriptions": subscriptions}))
            elif "control" in step:
                await ws.send(control_request(step["control"], step.get("speed", 1.0), step.get("seek"), step["id"]))
                while True:
                    ev = await asyncio.wait_for(states.get(), 5)
                    if ev["request_id"] == step["id"]:
                        break
            elif "sleep" in step:
                await asyncio.sleep(step["sleep"])
            elif "until_ended" in step:
                while True:
                    ev = await asyncio.wait_for(states.get(), step["until_ended"])
                    if ev["status"] == "Ended":
                        break
        task.cancel()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
