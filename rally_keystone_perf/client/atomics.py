"""Atomic action names: the one place reports, SLAs and comparisons key on."""

CREATE_TOKEN = "keystone.create_token"
VALIDATE_TOKEN = "keystone.validate_token"
LIST_PROJECTS = "keystone.list_projects"
# what Horizon and clients read: a user's role assignments (with names),
# the projects a token's user may scope to, the catalog of a token
LIST_ROLE_ASSIGNMENTS = "keystone.list_role_assignments"
LIST_AUTH_PROJECTS = "keystone.list_auth_projects"
GET_CATALOG = "keystone.get_catalog"
# automation's login: an application credential's id and secret (the route
# is create_token's: the access log cannot tell the two methods apart)
AUTHENTICATE_APP_CRED = "keystone.authenticate_application_credential"
CREATE_USER = "keystone.create_user"
DELETE_USER = "keystone.delete_user"
# seed 001's revocation list, as its successor: revocation events
REVOKE_TOKEN = "keystone.revoke_token"
LIST_REVOCATION_EVENTS = "keystone.list_revocation_events"
# Nova (seed 004): the boot until ACTIVE, the delete until gone
BOOT_SERVER = "nova.boot_server"
DELETE_SERVER = "nova.delete_server"
# a pre-issued token replaced before it expires (not one of the measured
# operations; shown so that its requests are never hidden in another action)
REFRESH_TOKEN = "keystone.refresh_token"

# atomic action -> the route (``METHOD /path``, ids as ``{id}``) of the one
# request it sends, read by the server-side view and the benchmarks. Two
# actions share a route when only the body differs (the auth methods): a
# workload timing both cannot tell their requests apart, and the server view
# then gives neither its route
ROUTES = {
    CREATE_TOKEN: "POST /v3/auth/tokens",
    AUTHENTICATE_APP_CRED: "POST /v3/auth/tokens",
    VALIDATE_TOKEN: "GET /v3/auth/tokens",
    LIST_PROJECTS: "GET /v3/projects",
    LIST_ROLE_ASSIGNMENTS: "GET /v3/role_assignments",
    LIST_AUTH_PROJECTS: "GET /v3/auth/projects",
    GET_CATALOG: "GET /v3/auth/catalog",
    CREATE_USER: "POST /v3/users",
    DELETE_USER: "DELETE /v3/users/{id}",
    REVOKE_TOKEN: "DELETE /v3/auth/tokens",
    LIST_REVOCATION_EVENTS: "GET /v3/OS-REVOKE/events",
}
