variable "name" {
  description = "Name of the Application (at most 24 characters, as DP requires)."
  type        = string
  default     = "demo"

  validation {
    condition     = length(var.name) <= 24
    error_message = "The Application name must be at most 24 characters."
  }
}

variable "namespace" {
  description = "Project namespace the application is installed in."
  type        = string
}

variable "package_version" {
  description = "Version of the demo-app package, for example v1.0.0."
  type        = string
}

variable "package_path" {
  description = "Folder of the demo-app package version deployed (the one holding openapi/). When set, the plan checks the settings against it offline first; module tests set it and need no cluster."
  type        = string
  default     = null
}

variable "package_repository" {
  description = "Name of the PackageRepository the package comes from."
  type        = string
  default     = "demo"
}

variable "domain" {
  description = "Domain name the application is served on."
  type        = string
}

variable "replicas" {
  description = "Number of replicas. Null keeps the package default."
  type        = number
  default     = null
}

variable "max_replicas" {
  description = "Upper bound for replicas. Null keeps the package default."
  type        = number
  default     = null
}

variable "log_level" {
  description = "Info or Debug. Null keeps the package default (Info)."
  type        = string
  default     = null

  validation {
    condition     = var.log_level == null || contains(["Info", "Debug"], coalesce(var.log_level, "Info"))
    error_message = "log_level must be Info or Debug."
  }
}

variable "storage_class" {
  description = "StorageClass of the data volume. Null: the project default. Immutable after the first apply."
  type        = string
  default     = null
}

variable "external_storage_url" {
  description = "When set, the application keeps its data in this external storage instead of the cluster."
  type        = string
  default     = null
}

variable "pod_labels" {
  description = "Extra labels for the application pods."
  type        = map(string)
  default     = {}
}

variable "admin_password" {
  description = "Password of the built-in administrator: sent write-only, never stored in the state."
  type        = string
  default     = null
  sensitive   = true
  ephemeral   = true
}

variable "admin_password_version" {
  description = "Change this value to send a new admin_password (write-only values are not compared)."
  type        = string
  default     = "1"
}

variable "allow_destructive_settings_switch" {
  description = "Acknowledge a destructive settings switch (for example moving storage from the cluster to external)."
  type        = bool
  default     = false
}
