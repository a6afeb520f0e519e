"""Schemathesis hooks of run_schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

With a schema file, schemathesis needs --url and then sends every operation there, whatever
servers a path declares. schemas/openapi.yaml gives the hosted checkout's paths their own server
(the checkout is its own listener, DUEPAY_CHECKOUT_URL): this hook sends each operation whose path
or operation declares that server to the checkout this run started (DUEPAY_SCHEMA_CHECKOUT_URL).
Any other per-path server is a schema this hook does not know: it stops the run.

Schemathesis also infers, from its name, that a create's `chainId` refers to a "Chain" resource
that some operation creates; none does (the chains are configuration), so it would never start a
stateful scenario with a create and never follow the create's links (a charge's reads, refunds and
checkout). The hook drops that one inferred reference.
"""

import os

import schemathesis

# The checkout's server in schemas/openapi.yaml (the dev stack's), and the dashboard's (its JSON
# routes need a signed-in session: run_schemathesis.sh excludes the dashboard tag; the dashboard's
# own tests cover them).
DECLARED_CHECKOUT = "http://127.0.0.1:8081"
DECLARED_DASHBOARD = "http://127.0.0.1:8082"


@schemathesis.hook
def before_init_operation(context, operation):
    path_item = operation.schema.raw_schema.get("paths", {}).get(operation.path, {})
    servers = operation.definition.raw.get("servers") or path_item.get("servers")
    if not servers:
        return
    declared = servers[0].get("url")
    if declared == DECLARED_DASHBOARD:
        return
    if declared != DECLARED_CHECKOUT:
        raise ValueError(
            f"{operation.method.upper()} {operation.path}: server {declared!r} is not the checkout's "
            f"({DECLARED_CHECKOUT}); teach tests/integration/api_schema/schemathesis_hooks.py where it runs"
        )
    operation.base_url = os.environ["DUEPAY_SCHEMA_CHECKOUT_URL"].rstrip("/")


@schemathesis.hook
def after_load_schema(context, schema):
    graph = schema.analysis.dependency_graph
    for node in graph.operations.values():
        node.inputs[:] = [slot for slot in node.inputs if slot.resource.name != "Chain"]
