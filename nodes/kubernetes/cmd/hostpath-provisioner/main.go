// Command hostpath-provisioner provisions the test cluster's PersistentVolumes dynamically
// (scripts/test-cluster.sh): each claim of a StorageClass whose provisioner is reglab.local/hostpath
// gets a folder of its own under -root and a hostPath volume bound to it; when the claim is deleted
// and the class says Delete, the folder and the volume go too. It runs on the cluster's only node,
// so a hostPath is where the pod runs.
//
// Folders are made world-writable, as other local-path provisioners make them: a hostPath volume
// is not chowned to the pod's fsGroup, and images such as Postgres and Redis run as their own user.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	provisionerName = "reglab.local/hostpath"
	// set on a claim by the PersistentVolume controller when the claim's class names an external provisioner
	provisionerAnnotation   = "volume.kubernetes.io/storage-provisioner"
	provisionedByAnnotation = "pv.kubernetes.io/provisioned-by"
	resyncPeriod            = 15 * time.Second // retries what failed, e.g. an API call during a restart
	apiCallTimeout          = 30 * time.Second
	worldWritable           = 0o777
)

type provisioner struct {
	client  kubernetes.Interface
	classes storagelisters.StorageClassLister
	root    string
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	root := flag.String("root", "", "folder that holds one folder per volume")
	flag.Parse()
	if *kubeconfig == "" || *root == "" {
		log.Fatal("usage: hostpath-provisioner -kubeconfig FILE -root FOLDER")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatalf("reading %s: %v", *kubeconfig, err)
	}
	if err := os.MkdirAll(*root, 0o755); err != nil {
		log.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(config)
	factory := informers.NewSharedInformerFactory(client, resyncPeriod)
	p := &provisioner{client: client, classes: factory.Storage().V1().StorageClasses().Lister(), root: *root}
	onClaim := func(object any) {
		if claim, ok := object.(*corev1.PersistentVolumeClaim); ok {
			p.provision(claim)
		}
	}
	onVolume := func(object any) {
		if volume, ok := object.(*corev1.PersistentVolume); ok {
			p.reclaim(volume)
		}
	}
	handle := func(on func(any)) cache.ResourceEventHandlerFuncs {
		return cache.ResourceEventHandlerFuncs{AddFunc: on, UpdateFunc: func(_, object any) { on(object) }}
	}
	if _, err := factory.Core().V1().PersistentVolumeClaims().Informer().AddEventHandler(handle(onClaim)); err != nil {
		log.Fatal(err)
	}
	if _, err := factory.Core().V1().PersistentVolumes().Informer().AddEventHandler(handle(onVolume)); err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	factory.Start(ctx.Done())
	log.Printf("%s provisioning volumes under %s", provisionerName, *root)
	<-ctx.Done()
	factory.Shutdown()
}

// provision gives a pending claim of this provisioner a folder and a volume bound to it.
func (p *provisioner) provision(claim *corev1.PersistentVolumeClaim) {
	if claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil ||
		claim.Annotations[provisionerAnnotation] != provisionerName {
		return
	}
	name := "pvc-" + string(claim.UID)
	if err := p.createVolume(name, claim); err != nil {
		log.Printf("claim %s/%s: %v", claim.Namespace, claim.Name, err)
		return
	}
	log.Printf("claim %s/%s: volume %s", claim.Namespace, claim.Name, name)
}

func (p *provisioner) createVolume(name string, claim *corev1.PersistentVolumeClaim) error {
	if claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == corev1.PersistentVolumeBlock {
		return fmt.Errorf("block volumes are not supported, only Filesystem")
	}
	className := ""
	if claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	}
	class, err := p.classes.Get(className)
	if err != nil {
		return fmt.Errorf("storage class %q: %w", className, err)
	}
	reclaimPolicy := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaimPolicy = *class.ReclaimPolicy
	}
	path := filepath.Join(p.root, claim.Namespace+"_"+claim.Name+"_"+name)
	if err := os.MkdirAll(path, worldWritable); err != nil {
		return err
	}
	// MkdirAll's mode is narrowed by the umask
	if err := os.Chmod(path, worldWritable); err != nil {
		return err
	}
	directory := corev1.HostPathDirectory
	volume := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{provisionedByAnnotation: provisionerName},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaimPolicy,
			StorageClassName:              className,
			MountOptions:                  class.MountOptions,
			ClaimRef: &corev1.ObjectReference{
				APIVersion: "v1",
				Kind:       "PersistentVolumeClaim",
				Namespace:  claim.Namespace,
				Name:       claim.Name,
				UID:        claim.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &directory},
			},
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiCallTimeout)
	defer cancel()
	_, err = p.client.CoreV1().PersistentVolumes().Create(ctx, volume, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// reclaim deletes the folder and the volume of a released claim whose class said Delete.
func (p *provisioner) reclaim(volume *corev1.PersistentVolume) {
	if volume.Annotations[provisionedByAnnotation] != provisionerName || volume.DeletionTimestamp != nil ||
		volume.Status.Phase != corev1.VolumeReleased ||
		volume.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		return
	}
	if err := p.deleteVolume(volume); err != nil {
		log.Printf("volume %s: %v", volume.Name, err)
		return
	}
	log.Printf("volume %s: deleted", volume.Name)
}

func (p *provisioner) deleteVolume(volume *corev1.PersistentVolume) error {
	if volume.Spec.HostPath == nil {
		return fmt.Errorf("not a hostPath volume")
	}
	path := volume.Spec.HostPath.Path
	relative, err := filepath.Rel(p.root, path)
	if err != nil || relative == "." || strings.HasPrefix(relative, "..") || strings.ContainsRune(relative, filepath.Separator) {
		return fmt.Errorf("refusing to delete %s: not a volume folder under %s", path, p.root)
	}
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiCallTimeout)
	defer cancel()
	err = p.client.CoreV1().PersistentVolumes().Delete(ctx, volume.Name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
