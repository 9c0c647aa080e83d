"""A Python gRPC client of pitboss, as a lab's or an operator's would be: stubs generated from the
project's proto/ by grpcio-tools, TLS checked against the given CA, a bearer token in the
`authorization` metadata or a client certificate.

Usage: access_client.py PROTO_DIR ADDRESS CA_PEM TOKEN CLIENT_CERT CLIENT_KEY

Prints one JSON object: what each call answered (a status code name, and what came back).
"""

import json
import os
import sys
import tempfile


def stubs(proto_dir):
    """Generates the Python stubs of proto/ into a temporary directory and imports them."""
    from grpc_tools import protoc
    import grpc_tools

    out = tempfile.mkdtemp(prefix="pitboss-stubs-")
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    files = [
        os.path.join("pitboss", "v1", name)
        for name in sorted(os.listdir(os.path.join(proto_dir, "pitboss", "v1")))
        if name.endswith(".proto")
    ]
    code = protoc.main(
        ["protoc", "-I" + proto_dir, "-I" + well_known, "--python_out=" + out, "--grpc_python_out=" + out]
        + files
    )
    if code != 0:
        raise SystemExit("protoc failed: %d" % code)
    sys.path.insert(0, out)
    from pitboss.v1 import play_pb2, play_pb2_grpc, audit_pb2, audit_pb2_grpc, events_pb2

    return play_pb2, play_pb2_grpc, audit_pb2, audit_pb2_grpc, events_pb2


def main(proto_dir, address, ca_pem, token, cert_pem, key_pem):
    import grpc

    play_pb2, play_pb2_grpc, audit_pb2, audit_pb2_grpc, events_pb2 = stubs(proto_dir)
    ca = open(ca_pem, "rb").read()
    # The server's certificate names localhost.
    options = (("grpc.ssl_target_name_override", "localhost"),)
    result = {}

    def opening(table):
        return play_pb2.OpenHandRequest(
            game=audit_pb2.GAME_NUTZ,
            table=table,
            player="python",
            wagers=[events_pb2.Wager(bet="box_one_pair", amount=500)],
        )

    def attempt(name, call):
        try:
            answer = call()
            result[name] = {"code": "OK", "hand_id": answer.hand.hand_id}
        except grpc.RpcError as e:
            result[name] = {"code": e.code().name, "details": e.details()}

    # A bearer token over TLS (server authentication only).
    tls = grpc.ssl_channel_credentials(root_certificates=ca)
    with grpc.secure_channel(address, tls, options) as channel:
        play = play_pb2_grpc.PlayStub(channel)
        metadata = (("authorization", "Bearer " + token),)
        attempt("token", lambda: play.OpenHand(opening("T7"), metadata=metadata))
        attempt("no_credential", lambda: play.OpenHand(opening("T7")))
        attempt("wrong_token", lambda: play.OpenHand(opening("T7"), metadata=(("authorization", "Bearer nope"),)))
        if result["token"]["code"] == "OK":
            audit = audit_pb2_grpc.AuditStub(channel)
            events = audit.GetHandEvents(
                audit_pb2.GetHandEventsRequest(hand_id=result["token"]["hand_id"]), metadata=metadata
            )
            result["token_actors"] = sorted({e.actor for e in events.events})

    # A client certificate (mutual TLS), no token.
    mtls = grpc.ssl_channel_credentials(
        root_certificates=ca,
        private_key=open(key_pem, "rb").read(),
        certificate_chain=open(cert_pem, "rb").read(),
    )
    with grpc.secure_channel(address, mtls, options) as channel:
        play = play_pb2_grpc.PlayStub(channel)
        attempt("certificate", lambda: play.OpenHand(opening("T7")))
        attempt("certificate_other_table", lambda: play.OpenHand(opening("T8")))

    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:7])
