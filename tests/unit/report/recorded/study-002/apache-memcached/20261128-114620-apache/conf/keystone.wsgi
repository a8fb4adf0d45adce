# mod_wsgi entry point for Keystone. Rendered by rally-keystone-perf for run
# /tmp/golden-src/study-002/apache-memcached/20261128-114620-apache. mod_wsgi's SetEnv does not reach os.environ before Keystone
# reads its config, so the config files are set here.
import os

os.environ["OS_KEYSTONE_CONFIG_FILES"] = "/tmp/golden-src/study-002/apache-memcached/20261128-114620-apache/conf/keystone.conf;/tmp/golden-src/study-002/apache-memcached/20261128-114620-apache/private/keystone-secrets.conf"

from rally_keystone_perf.deploy.wsgi_app import application  # noqa: E402,F401
