// Package deploy holds no code: its tests hold the deployment files (the Kubernetes base in k8s/,
// ../docker-compose.yml, image/Containerfile) to what the gateway expects. It is its own module so that
// the Kubernetes, Compose and BuildKit libraries the tests need stay out of the server's go.mod.
package deploy
